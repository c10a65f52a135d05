INSERT INTO webhook_subscribers (name, token_hash, created_at)
        VALUES (?, ?, ?) RETURNING id, name, created_at;
