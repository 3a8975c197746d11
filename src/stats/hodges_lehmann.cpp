// placeholder: stats/hodges_lehmann (not yet written)
