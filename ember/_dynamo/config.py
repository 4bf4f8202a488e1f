"""ember._dynamo.config (torch._dynamo.config): the knobs of ember.compile's capture."""
recompile_limit = 8       # graphs per compiled callable before it runs eagerly for new guards
disable = False           # every compiled callable runs eagerly
