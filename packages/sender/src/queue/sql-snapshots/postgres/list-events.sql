WITH endpoint AS (SELECT secrets, signature_headers, token FROM webhook_endpoints
        WHERE id = $1 AND subscriber_id = $2)
          SELECT secrets, signature_headers, token, NULL AS message_id, NULL AS webhook_id, NULL AS event_type,
            NULL AS payload, NULL AS created_at
          FROM endpoint
          UNION ALL
          SELECT NULL, NULL, NULL, message_id, webhook_id, event_type, payload, created_at
          FROM (SELECT d.message_id, m.webhook_id, m.event_type, m.payload, m.created_at
        FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
        WHERE d.endpoint_id = $3 AND d.message_id >= $4 AND EXISTS (SELECT 1 FROM endpoint)
        ORDER BY d.message_id LIMIT $5) AS page
          ORDER BY message_id NULLS FIRST;

SELECT message_id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY message_id LIMIT 1;
