SELECT count(*) AS endpoints, count(rate_limit) AS rate_limited,
          sum(CASE WHEN url = $1 THEN 1 ELSE 0 END) AS at_url
        FROM webhook_endpoints WHERE subscriber_id = $2;
