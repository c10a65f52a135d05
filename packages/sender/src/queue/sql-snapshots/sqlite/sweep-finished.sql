SELECT id FROM webhook_deliveries WHERE status IN ('delivered', 'failed')
            AND updated_at < ? - ?
          ORDER BY updated_at LIMIT ?;

DELETE FROM webhook_attempts WHERE delivery_id = ?;

DELETE FROM webhook_deliveries WHERE id = ?;

DELETE FROM webhook_messages WHERE id IN (
          SELECT m.id FROM webhook_messages m WHERE m.created_at < ? - ?
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = m.id)
          ORDER BY m.created_at LIMIT ?);
