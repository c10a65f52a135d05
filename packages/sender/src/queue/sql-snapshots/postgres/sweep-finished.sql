SELECT id FROM webhook_deliveries WHERE status IN ('delivered', 'failed')
            AND updated_at < (extract(epoch FROM statement_timestamp()) * 1000)::bigint - $1
          ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED;

DELETE FROM webhook_attempts WHERE delivery_id = ANY($1::bigint[]);

DELETE FROM webhook_deliveries WHERE id = ANY($1::bigint[]);

DELETE FROM webhook_messages WHERE id IN (
          SELECT m.id FROM webhook_messages m WHERE m.created_at < (extract(epoch FROM statement_timestamp()) * 1000)::bigint - $1
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = m.id)
          ORDER BY m.created_at LIMIT $2 FOR UPDATE SKIP LOCKED);
