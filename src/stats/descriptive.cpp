// placeholder: stats/descriptive (not yet written)
