SELECT id, name, created_at FROM webhook_subscribers WHERE id = ?;
