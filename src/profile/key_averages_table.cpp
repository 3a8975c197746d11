// placeholder: profile/key_averages_table (not yet written)
