DROP TABLE known_browsers;
