// placeholder: report/number_format (not yet written)
