SELECT id FROM webhook_endpoints WHERE id = $1 AND subscriber_id = $2;

SELECT x.message_id, m.webhook_id, m.event_type, m.created_at
        FROM webhook_exclusions x JOIN webhook_messages m ON m.id = x.message_id
        WHERE x.endpoint_id = $1 AND x.message_id > $2
        ORDER BY x.message_id LIMIT $3;
