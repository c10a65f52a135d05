DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id IN (
          SELECT id FROM webhook_endpoints WHERE id = ? AND subscriber_id = ?));

DELETE FROM webhook_endpoints WHERE id = ? AND subscriber_id = ?;
