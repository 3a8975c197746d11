// placeholder: stats/multiple_testing (not yet written)
