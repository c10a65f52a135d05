SELECT id, token, secrets FROM webhook_endpoints ORDER BY id FOR UPDATE;
