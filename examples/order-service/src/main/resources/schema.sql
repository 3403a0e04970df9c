create table if not exists orders (
    id       text primary key,
    item     text not null,
    quantity int  not null,
    status   text not null
);
