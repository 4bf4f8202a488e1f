"""ember.utils.data: Dataset, DataLoader, random_split (issue 6)."""
