// Packages without type declarations, used by tests and benches through narrow local interfaces.
declare module 'snarkjs';
