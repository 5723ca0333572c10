DROP TABLE category_goals;
