DROP TABLE fx_feed_status;
