-- The test application's own Flyway migration (KairosFlywayTest).
CREATE TABLE app_orders (id INT PRIMARY KEY);
