// placeholder: compare/rule_set (not yet written)
