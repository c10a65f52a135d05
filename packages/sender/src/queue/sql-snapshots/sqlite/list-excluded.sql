SELECT id FROM webhook_endpoints WHERE id = ? AND subscriber_id = ?;

SELECT x.message_id, m.webhook_id, m.event_type, m.created_at
        FROM webhook_exclusions x JOIN webhook_messages m ON m.id = x.message_id
        WHERE x.endpoint_id = ? AND x.message_id > ?
        ORDER BY x.message_id LIMIT ?;
