DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id IN (
          SELECT id FROM webhook_endpoints WHERE id = $1 AND subscriber_id = $2));

DELETE FROM webhook_endpoints WHERE id = $1 AND subscriber_id = $2;
