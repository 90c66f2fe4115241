"""The state that lives across requests: the open documents (documents.Session), background validation, the diagnostics cache on disk."""
