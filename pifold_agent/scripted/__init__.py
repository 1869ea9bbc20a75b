"""The scripted provider: the loop's test double and the demo's player.

It plays a script or a real trace through the same loop, engine and session code a real
model goes through (:mod:`pifold_agent.scripted.provider`), from the sources
:mod:`pifold_agent.scripted.script_format` reads. It lives beside the loop, not among the
SDK adapters of :mod:`pifold_agent.providers`: it talks to no SDK, and it speaks the loop's
tool protocol and queues.
"""
