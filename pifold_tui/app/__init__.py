"""The terminal agent app: the conversation, the prompt, the fold bar and the footer."""
