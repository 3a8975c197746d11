// placeholder: report/provenance (not yet written)
