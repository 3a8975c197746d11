// placeholder: util/atomic_file (not yet written)
