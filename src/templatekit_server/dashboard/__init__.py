"""The dashboard: the pages where the people of a workspace manage what /v1 serves."""
