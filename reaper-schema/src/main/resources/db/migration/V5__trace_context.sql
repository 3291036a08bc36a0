-- Trace context carried end to end (issue #15): the W3C traceparent (https://www.w3.org/TR/trace-context/) of the
-- reaper cycle that wrote the row, e.g. '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'. The Kafka relay
-- continues it in its producer span and forwards it as the CloudEvents extension ce_traceparent; the recorder-stop
-- dispatcher continues it in its HTTP client span. NULL when the writer had no trace (tracing off, or another writer
-- of these shared tables): such a row is delivered as before, without a parent. Nullable with a NULL default, so
-- other writers' inserts keep working; no index (only read back with the claimed row).

ALTER TABLE messenger.integration_outbox
    ADD COLUMN trace_parent text NULL DEFAULT NULL;

ALTER TABLE messenger.recorder_stop_requests
    ADD COLUMN trace_parent text NULL DEFAULT NULL;
