// placeholder: stats/welch_log (not yet written)
