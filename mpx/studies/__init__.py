"""Studies over results stores: the protocol's statistics (`compare`), the summary tables (`report`), the claims ledger (`claims`), and the timing run (`bench`)."""
