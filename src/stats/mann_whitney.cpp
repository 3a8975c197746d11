// placeholder: stats/mann_whitney (not yet written)
