"""replace_pattern: find every match of a pattern graph and splice in a replacement."""
