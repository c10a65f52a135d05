SELECT d.endpoint_id AS endpoint_id, COUNT(*) AS attempts,
          SUM(CASE WHEN a.status BETWEEN 200 AND 299 THEN 1 ELSE 0 END) AS succeeded,
          MAX(a.started_at) AS last_attempt_at
        FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE a.started_at >= ? AND d.endpoint_id IN (SELECT id FROM webhook_endpoints WHERE subscriber_id = ?)
        GROUP BY d.endpoint_id ORDER BY d.endpoint_id;
