-- The integration outbox in the layout Debezium's outbox event router reads with its documented defaults, for
-- reaper.outbox.mode=debezium: the platform's Kafka Connect reads this table's inserts from the write-ahead log
-- (ops/kafka-connect/) and publishes each as the same record the relay publishes from messenger.integration_outbox
-- (docs/contract/conference-ended.v1.md). In that mode the transition's transaction inserts its row here instead of
-- into messenger.integration_outbox, and deletes it again before commit: the insert is in the WAL, which is all the
-- connector reads, and the table never holds a committed row, so nothing sweeps it and nothing updates it (the router
-- treats updates as invalid). In relay mode (the default) the table stays empty and unused.
--
-- The router's defaults: id (the event id), aggregatetype (route.by.field: here the topic itself), aggregateid (the
-- record key: the dealId), type, payload (the record value). The other columns are placed as record headers by
-- table.fields.additional.placement, one column a header, named as the relay names them; tracingspancontext is the
-- router's tracing column (java.util.Properties text with the cycle's traceparent), from which the connector's
-- OpenTelemetry makes the record's traceparent header. All text: each column's value is the header's bytes as they are.
CREATE TABLE messenger.integration_outbox_debezium (
    id                 uuid         PRIMARY KEY,
    aggregatetype      varchar(255) NOT NULL,
    aggregateid        varchar(255) NOT NULL,
    type               varchar(255) NOT NULL,
    payload            jsonb        NOT NULL,
    ce_specversion     text         NOT NULL,
    ce_type            text         NOT NULL,
    ce_source          text         NOT NULL,
    ce_time            text         NOT NULL,
    ce_subject         text         NULL,
    ce_dataschema      text         NULL,
    ce_correlationid   text         NULL,
    ce_traceparent     text         NULL,
    tracingspancontext text         NULL,
    content_type       text         NOT NULL
);
