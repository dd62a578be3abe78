import Glibc

/// A bounded first-in first-out queue shared by producer and consumer threads (a pthread
/// mutex and condition): `put` never waits (false when full), `take` waits for an item and
/// returns nil once `close` was called and nothing is left.
final class BoundedWorkQueue<Item>: @unchecked Sendable {
    let capacity: Int
    private var items: [Item] = []
    private var closed = false
    private var mutex = pthread_mutex_t()
    private var nonEmpty = pthread_cond_t()

    init(capacity: Int) {
        self.capacity = capacity
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&nonEmpty, nil)
    }

    deinit {
        pthread_cond_destroy(&nonEmpty)
        pthread_mutex_destroy(&mutex)
    }

    func put(_ item: Item) -> Bool {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        guard !closed, items.count < capacity else { return false }
        items.append(item)
        pthread_cond_signal(&nonEmpty)
        return true
    }

    func take() -> Item? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while items.isEmpty && !closed { pthread_cond_wait(&nonEmpty, &mutex) }
        return items.isEmpty ? nil : items.removeFirst()
    }

    func close() {
        pthread_mutex_lock(&mutex)
        closed = true
        pthread_cond_broadcast(&nonEmpty)
        pthread_mutex_unlock(&mutex)
    }
}
