"""Model providers behind the official SDKs.

``base`` (the interface the loop speaks), ``anthropic_messages``, ``openai_responses``,
``openai_chat`` (any compatible server), ``errors`` (the classifier), ``models`` (the model
table) and ``resolve`` (``resolve_provider``). Nothing is imported here, so a module that
needs only ``base`` does not load both SDKs.
"""
