"""soro_link: the one hardware link of the softbots stack (framing, protocol, supervision, devices,
recording)."""
