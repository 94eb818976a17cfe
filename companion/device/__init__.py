"""The companion device: the panel on the GPIO header, the camera loop that referees, the
background hint, the service glue. ``gobblet-companion run`` is its front door."""
