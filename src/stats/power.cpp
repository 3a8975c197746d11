// placeholder: stats/power (not yet written)
