"""One module per API area (the source of ``chatops/_sync_client/resources/``)."""
