"""Operations: systemd notification (`sdnotify`), Prometheus metrics (`metrics`) and their HTTP server (`http`)."""
