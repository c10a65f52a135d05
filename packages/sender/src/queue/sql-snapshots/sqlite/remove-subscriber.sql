DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT d.id FROM webhook_deliveries d
          JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.subscriber_id = ?);

DELETE FROM webhook_messages WHERE subscriber_id = ?;

DELETE FROM webhook_endpoints WHERE subscriber_id = ?;

DELETE FROM webhook_subscribers WHERE id = ?;
