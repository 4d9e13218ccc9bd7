"""Telemetry: OpenTelemetry spans (HTTP requests, tool calls, database statements; exported over OTLP only when
configured) and Prometheus metrics (`/metrics`, for the operator only). Stands on the standard library, the settings
and the log's request id; the database and the app wire themselves to it, it imports neither."""
