// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @notice A devnet pool for the approve + swap demo: DemoDollar (6 decimals) for ETH and back at
/// a fixed rate, paid from what it holds. The trader is `msg.sender`: a swap from an agent's own
/// account pulls the agent's dollars with the allowance it granted and pays the agent.
contract DemoSwap {
    using SafeERC20 for IERC20;

    IERC20 public immutable dollar;
    /// @notice Wei one dollar unit (1e-6 DemoDollar) buys: 1 ETH = 2000 DemoDollar.
    uint256 public constant WEI_PER_DOLLAR_UNIT = 1e18 / 2000e6;

    event Swapped(address indexed trader, uint256 dollarsIn, uint256 weiOut, uint256 weiIn, uint256 dollarsOut);

    error PayoutFailed();

    constructor(IERC20 dollar_) {
        dollar = dollar_;
    }

    /// @notice Accepts ETH to fund the pool.
    receive() external payable {}

    /// @notice Takes `dollars` from the caller (its allowance) and sends it the ETH they buy.
    function sellDollars(uint256 dollars) external returns (uint256 weiOut) {
        weiOut = dollars * WEI_PER_DOLLAR_UNIT;
        dollar.safeTransferFrom(msg.sender, address(this), dollars);
        emit Swapped(msg.sender, dollars, weiOut, 0, 0);
        (bool ok,) = msg.sender.call{value: weiOut}("");
        if (!ok) revert PayoutFailed();
    }

    /// @notice Sends the caller the dollars the ETH it sent buys.
    function buyDollars() external payable returns (uint256 dollarsOut) {
        dollarsOut = msg.value / WEI_PER_DOLLAR_UNIT;
        emit Swapped(msg.sender, 0, 0, msg.value, dollarsOut);
        dollar.safeTransfer(msg.sender, dollarsOut);
    }
}
