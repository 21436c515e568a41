"""soro_node: what every softbots node uses that is not the hardware link.

Typed parameters (``params``), timed sequences (``sequence``) and blocking waits (``waiting``) are
pure; the rclpy side is ``base_node`` (declaring and reading parameters, a node's main(),
cancellable action goals) and ``commander`` (the base of the blocking client libraries that scripts
use).
"""
