create table app_orders (id bigint primary key);
