SELECT * FROM webhook_messages m WHERE m.created_at >= $1 AND m.event_type IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed')
          AND m.subscriber_id = $2
        ORDER BY m.id DESC LIMIT $3;
