SELECT * FROM webhook_messages m WHERE m.created_at >= ? AND m.event_type IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed')
          AND m.subscriber_id = ?
        ORDER BY m.id DESC LIMIT ?;
