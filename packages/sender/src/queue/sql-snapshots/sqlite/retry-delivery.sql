UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0, next_attempt_at = ?,
          updated_at = ?, lease_owner = NULL, lease_until = NULL
        WHERE id = ? AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE subscriber_id = ?) RETURNING *;

-- wake the workers once committed
