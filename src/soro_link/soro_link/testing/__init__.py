"""The test stand-ins of the link, for the tests and benchmarks of every robot package (no ROS):
``links`` (a device behind a real pseudo-terminal with a link supervisor connected to it, a raw
host, the bad frames every device must survive), ``emulator`` (real firmware images in
qemu-system-avr), ``firmware_checks`` (what every board's firmware is checked for) and
``firmware_fixtures`` (the pytest fixtures that build and run an image)."""
