// placeholder: report/json (not yet written)
