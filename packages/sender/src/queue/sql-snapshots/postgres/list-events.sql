WITH endpoint AS (SELECT secrets, signature_headers, token FROM webhook_endpoints
        WHERE id = $1 AND subscriber_id = $2)
          SELECT message_id, webhook_id, event_type, payload, created_at
          FROM (SELECT d.message_id, m.webhook_id, m.event_type, m.payload, m.created_at
        FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
        WHERE d.endpoint_id = $3 AND d.message_id >= $4 AND m.id >= $5 AND EXISTS (SELECT 1 FROM endpoint)
        ORDER BY d.message_id LIMIT $6) AS page
          UNION ALL
          SELECT NULL, secrets, signature_headers, token, NULL
          FROM endpoint
          ORDER BY message_id;

SELECT message_id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY message_id LIMIT 1;
