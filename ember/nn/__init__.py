"""ember.nn: modules, parameters, initialisation and functional ops (issue 6)."""
