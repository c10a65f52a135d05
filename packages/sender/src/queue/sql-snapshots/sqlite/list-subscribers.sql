SELECT id, name, created_at FROM webhook_subscribers ORDER BY id;
