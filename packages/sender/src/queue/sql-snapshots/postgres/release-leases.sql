UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL
        WHERE id = ANY($1::bigint[]) AND lease_owner = $2;

-- wake the workers once committed
