// placeholder: report/report (not yet written)
